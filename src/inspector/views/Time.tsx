/** Placeholder: filled in by the view's owner (issue 25). */
export function TimeView() {
  return <section className="placeholder"><h1>Time</h1></section>;
}
