import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/storage/index.ts';
import { tempDir } from './helpers.ts';

const root = join(import.meta.dirname, '..', '..');
const script = join(import.meta.dirname, 'fixtures', 'crash-writer.ts');

interface Ack {
  w: number;
  i: number;
  seq: number;
}

/**
 * Runs the writer child until it has acknowledged `killAfter` commits, then
 * SIGKILLs it. Returns the acknowledgements it printed before dying.
 */
function runAndKill(path: string, round: number, killAfter: number): Promise<Ack[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, path, String(round), '150'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const acks: Ack[] = [];
    let buffered = '';
    let stderr = '';
    let killed = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`writer did not reach ${killAfter} acks in time (got ${acks.length}); stderr: ${stderr}`));
    }, 45_000);
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) {
        const [kind, w, i, seq] = line.split(' ');
        if (kind !== 'ack') continue;
        acks.push({ w: Number(w), i: Number(i), seq: Number(seq) });
      }
      if (!killed && acks.length >= killAfter) {
        killed = true;
        child.kill('SIGKILL');
      }
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (signal === 'SIGKILL' && killed) resolve(acks);
      else reject(new Error(`writer exited unexpectedly (code ${code}, signal ${signal}); stderr: ${stderr}`));
    });
  });
}

describe('crash safety', () => {
  it('every acknowledged commit survives kill -9, across several crash/recover rounds', async () => {
    const path = join(tempDir(), 'nested', 'db.json');
    const acked: { round: number; acks: Ack[] }[] = [];
    const killPoints = [400, 900, 250];

    for (let round = 0; round < killPoints.length; round++) {
      const acks = await runAndKill(path, round, killPoints[round]!);
      expect(acks.length).toBeGreaterThanOrEqual(killPoints[round]!);
      acked.push({ round, acks });

      expect(existsSync(path)).toBe(true);
      const { store, fresh } = await openStore({ path });
      expect(fresh).toBe(false);
      for (const { round: r, acks: list } of acked) {
        const lastPerWriter = new Map<number, number>();
        for (const { w, i, seq } of list) {
          const row = store.get('rows', `ws${w}`, `r${r}-w${w}-${i}`);
          expect(row, `round ${r} writer ${w} commit ${i} (seq ${seq})`).toMatchObject({ w, i, round: r });
          expect(store.seq).toBeGreaterThanOrEqual(seq);
          lastPerWriter.set(w, Math.max(lastPerWriter.get(w) ?? -1, i));
        }
        for (const [w, last] of lastPerWriter) {
          const counter = store.get<{ id: string; last: number }>('counters', '_global', `r${r}-w${w}`);
          expect(counter?.last).toBeGreaterThanOrEqual(last);
        }
      }
      // per writer and round, the rows present are exactly 0..n with no holes, and the
      // counter written in the same commit says n: commits are atomic and ordered
      for (const workspaceId of store.partitions('rows')) {
        const byRound = new Map<number, number[]>();
        for (const row of store.list<{ id: string; round: number; i: number }>('rows', workspaceId)) {
          let list = byRound.get(row.round);
          if (!list) byRound.set(row.round, (list = []));
          list.push(row.i);
        }
        for (const [r, list] of byRound) {
          expect(list).toEqual(list.map((_, k) => k));
          const counter = store.get<{ id: string; last: number }>('counters', '_global', `r${r}-w${workspaceId.slice(2)}`);
          expect(counter?.last).toBe(list.length - 1);
        }
      }
      await store.close();
    }
  }, 120_000);
});
