export default async function globalTeardown() {
  await globalThis.__SANDBOX__?.stop(); // only the sandbox the global setup started
}
