#!/usr/bin/env node
// Tiny shim: load the CLI, nothing else. tsx runs the TypeScript sources directly.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
await main(process.argv);
