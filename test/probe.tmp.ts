import { testSandbox } from './helpers/sandbox.ts';
const t = await testSandbox();
const d = JSON.parse((await t.sandbox.app.inject({url:"/__sandbox/openapi.json"})).body);
for (const p of Object.keys(d.paths).filter(p=>p.includes('/collections'))) console.log(p, d.paths[p].get.operationId, JSON.stringify(d.paths[p].get.responses['200'].content?.['application/json']?.schema).slice(0,200));
await t.sandbox.stop();
