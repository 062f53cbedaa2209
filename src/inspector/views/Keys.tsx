/** Placeholder: filled in by the view's owner (issue 25). */
export function KeysView() {
  return <section className="placeholder"><h1>Keys</h1></section>;
}
