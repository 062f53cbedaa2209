// The image's HEALTHCHECK (Dockerfile, docs/containers.md): GET /__sandbox/health on the sandbox's
// own port. It sends SANDBOX_CONTROL_TOKEN when the container was given one; without it the token
// is generated at each start and only the log shows it, so a 401 (the health route answered, and
// wants the token) counts as healthy too.
const port = process.env.SANDBOX_PORT || '4010';
const token = process.env.SANDBOX_CONTROL_TOKEN;
try {
  const res = await fetch(`http://127.0.0.1:${port}/__sandbox/health`, {
    headers: token ? { 'x-sandbox-token': token } : {},
    signal: AbortSignal.timeout(2000),
  });
  process.exit(res.ok || (!token && res.status === 401) ? 0 : 1);
} catch {
  process.exit(1);
}
