import type { Command } from 'commander';

/** `sandbox openapi`: the OpenAPI document, no server needed. */
export function openapiCommand(program: Command): void {
  program
    .command('openapi')
    .description('print (or write) the OpenAPI document of the API and the control plane, no server needed')
    .option('--out <file>', 'write it to a file instead of stdout')
    .addHelpText(
      'after',
      '\nExamples:\n  $ npx sandbox openapi > openapi.json\n  $ npx sandbox openapi --out openapi.json && npx openapi-typescript openapi.json -o api.d.ts',
    )
    .action(async (opts) => (await import('../openapi.ts')).runOpenApi(opts));
}
