/** Placeholder: filled in by the view's owner (issue 25). */
export function RequestsView() {
  return <section className="placeholder"><h1>Requests</h1></section>;
}
