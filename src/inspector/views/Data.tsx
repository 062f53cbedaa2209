/** Placeholder: filled in by the view's owner (issue 25). */
export function DataView() {
  return <section className="placeholder"><h1>Data</h1></section>;
}
