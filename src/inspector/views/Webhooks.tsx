/** Placeholder: filled in by the view's owner (issue 25). */
export function WebhooksView() {
  return <section className="placeholder"><h1>Webhooks</h1></section>;
}
