/**
 * Every route both apps registered (/v1 and /__sandbox), with what the OpenAPI
 * document, the run report, the known scopes and the route suggestions read off
 * it. It lives in the core, below the HTTP layer, so that the context can hold
 * it (`ctx.routes`) without knowing the server (docs/architecture.md, "Layers"); the document itself is
 * written by src/http/openapi.ts, which the sandbox hands in as `render`.
 */
export interface CatalogRoute {
  method: string;
  url: string;
  schema: Record<string, unknown> | undefined;
  inferred: boolean | undefined;
  /** statuses the API description states for this operation; the others are marked inferred */
  documentedStatuses?: readonly number[] | undefined;
  /** the description states this route's scope; otherwise x-sandbox-inferred-scope */
  documentedScope?: boolean | undefined;
  scope: string | undefined;
  summary: string | undefined;
  operationId?: string | undefined;
}

export class RouteCatalog {
  readonly routes: CatalogRoute[] = [];
  private cached: string | null = null;

  /** `render` writes the OpenAPI document of the routes (built on first request, then kept) */
  constructor(private readonly render: (routes: readonly CatalogRoute[]) => string) {}

  add(route: CatalogRoute): void {
    this.routes.push(route);
    this.cached = null;
  }

  document(): string {
    this.cached ??= this.render(this.routes);
    return this.cached;
  }
}
