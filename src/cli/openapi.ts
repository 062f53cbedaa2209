import { writeFile } from 'node:fs/promises';
import { createSandbox } from '../sandbox.ts';
import { errorMessage, fail } from './output.ts';

/**
 * `sandbox openapi [--out file]`: the OpenAPI document of the API and the
 * control plane, without a running server, for code generators in CI. It
 * builds an in-memory sandbox that never listens and reads the same document
 * `GET /__sandbox/openapi.json` serves.
 */
export async function runOpenApi(opts: { out?: string }): Promise<void> {
  const sandbox = await createSandbox({ listen: false, storage: 'memory', clock: 'manual' });
  let text: string;
  try {
    await sandbox.context.controlPlane.ready(); // the control routes join the document once their app is built
    // the served bytes, not re-indented: pretty-printed, the 3.4 MB document would be 7.6 MB
    text = `${sandbox.context.routes.document()}\n`;
  } finally {
    await sandbox.stop();
  }
  if (!opts.out) {
    process.stdout.write(text);
    return;
  }
  try {
    await writeFile(opts.out, text);
  } catch (err) {
    fail(
      `cannot write ${opts.out}: ${errorMessage(err)
        .replace(/^\w+: /, '')
        .replace(/, open .*$/, '')}`,
    );
  }
  process.stderr.write(`sandbox: wrote the OpenAPI document to ${opts.out}\n`);
}
