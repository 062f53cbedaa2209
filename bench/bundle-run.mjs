// The command of the end-to-end figure of docs/benchmarks.md ("The failure bundle"), run under
// `sandbox exec`: 10,000 bookings seeded, 1,000 requests over them, then the time it exits on
// stdout, so that what exec takes after it (its report, the bundle, its stop) can be read:
//
//   out=$(npx sandbox exec --clock manual --no-rate-limits --bundle-on-failure b.json.gz -- node bench/bundle-run.mjs)
//   echo $(( $(date +%s%3N) - $(echo "$out" | grep -o 'EXIT_AT [0-9]*' | cut -d' ' -f2) )) ms
const url = process.env.SANDBOX_URL;
const control = process.env.SANDBOX_CONTROL_URL;
const headers = { authorization: `Bearer ${process.env.SANDBOX_API_KEY}` };
await fetch(`${control}/seed`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ workspaceId: process.env.SANDBOX_WORKSPACE_ID, bookings: 9910 }),
});
const list = await (await fetch(`${url}/v1/bookings?limit=100`, { headers })).json();
for (let i = 0; i < 999; i++) {
  const path =
    i % 10 === 0 ? '/v1/bookings/book_00000000-0000-4000-8000-000000000000' : i % 3 === 0 ? '/v1/bookings?limit=20' : `/v1/bookings/${list.data[i % 100].id}`;
  await (await fetch(`${url}${path}`, { headers })).arrayBuffer();
}
console.log(`EXIT_AT ${Date.now()}`);
// a failing run (the bundle is --bundle-on-failure's), and no wait for keep-alive sockets to close
process.exit(1);
