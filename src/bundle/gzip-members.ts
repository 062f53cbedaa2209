import { setImmediate as nextTurn } from 'node:timers/promises';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';

const gzipAsync = promisify(gzip);

/** gzip's level 4: level 2 was no faster here and 4% larger; 6, its default, 4% smaller and slower (docs/benchmarks.md, "The failure bundle") */
const GZIP_LEVEL = 4;
/**
 * The text as gzip members (RFC 1952, 2.2: a gzip file is a series of members, and every reader
 * gives back their texts joined), each of about MEMBER_BYTES, compressed on the thread pool while
 * the next is written. The text is written into buffers used again once their member is
 * compressed, by Buffer's own UTF-8 writer (several times faster than TextEncoder.encodeInto on
 * Node 20): fresh memory for each piece cost more than the encoding (every new page a fault).
 */
export class GzipMembers {
  readonly #members: Promise<Buffer>[] = [];
  readonly #free: Buffer[] = [];
  /** how many of #members are compressed */
  #done = 0;
  #buffer: Buffer = Buffer.allocUnsafeSlow(BUFFER_BYTES);
  #at = 0;

  /**
   * After a member was sent: a turn of the event loop, or, when IN_FLIGHT members are being
   * compressed and no buffer is free, the end of one of them. Writing on while gzip is behind
   * would only take fresh memory for the text waiting (every new page a fault).
   */
  async room(): Promise<void> {
    const waiting = this.#members.length - this.#done;
    if (this.#free.length > 0 || waiting <= IN_FLIGHT) return nextTurn();
    await this.#members[this.#done];
  }

  /** Adds a piece; true when a member was just sent to be compressed (then await room()). */
  write(text: string): boolean {
    let sent = false;
    // at most 3 bytes a UTF-16 unit: only a long piece near the end of a buffer is measured
    if (text.length * 3 > this.#room()) {
      const bytes = Buffer.byteLength(text);
      if (bytes > this.#room()) {
        sent = this.#send();
        if (bytes > this.#buffer.length) this.#buffer = Buffer.allocUnsafeSlow(bytes); // a piece longer than a buffer: one of its own
      }
    }
    this.#at += this.#buffer.write(text, this.#at);
    if (this.#at >= MEMBER_BYTES) sent = this.#send() || sent;
    return sent;
  }

  /** The members, in order, once all are compressed (not joined: a copy of megabytes costs a page fault every 4 KB). */
  end(): Promise<Buffer[]> {
    this.#send();
    return Promise.all(this.#members);
  }

  #room(): number {
    return this.#buffer.length - this.#at;
  }

  /** Sends what the buffer holds to be compressed, if anything, and takes a buffer for what follows. */
  #send(): boolean {
    if (this.#at === 0) return false;
    const buffer = this.#buffer;
    const member = gzipAsync(buffer.subarray(0, this.#at), { level: GZIP_LEVEL }).finally(() => {
      this.#done++;
      if (buffer.length === BUFFER_BYTES) this.#free.push(buffer);
    });
    member.catch(() => {}); // a failure is thrown by end() or room(), whichever comes first; never unhandled
    this.#members.push(member);
    this.#buffer = this.#free.pop() ?? Buffer.allocUnsafeSlow(BUFFER_BYTES);
    this.#at = 0;
    return true;
  }
}

/** a member's bytes: enough that starting gzip's window afresh costs nothing to speak of, few enough to keep little at hand */
const MEMBER_BYTES = 1024 * 1024;
/** members compressed at once at most while the text goes on: the thread pool has four threads, the machines two cores or more */
const IN_FLIGHT = 4;
/** a member and the piece that may overflow it (a column of two thousand values) */
const BUFFER_BYTES = 2 * MEMBER_BYTES;
