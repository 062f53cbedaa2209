import { afterAll, afterEach } from 'vitest';
import { onListenerError } from '../../src/storage/listener-errors.ts';

/**
 * A store change listener that throws is a bug (src/storage/listener-errors.ts):
 * in production one line on stderr, here a failure of the test that made it
 * throw, where the line went unnoticed among the output. A
 * test that means a listener to throw installs its own handler with
 * onListenerError and puts this one back. Run before every test file of both
 * projects (vitest.config.ts `setupFiles`).
 */
const failures: string[] = [];
onListenerError((failure) => failures.push(failure.message));

function failOnListenerErrors(when: string): void {
  if (failures.length === 0) return;
  const found = failures.splice(0);
  throw new Error(`${found.length} store change listener error(s) ${when}:\n${found.join('\n')}`);
}

afterEach(() => failOnListenerErrors('during this test'));
afterAll(() => failOnListenerErrors('after the last test of this file (in an afterAll, or a write still running)'));
