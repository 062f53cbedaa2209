/** The name, and the mode unless the name says it already: "Borealis Adventures (sandbox)", not "Borealis Adventures (sandbox) (sandbox)". */
export function pickerLabel(w: { name: string; mode: string }): string {
  return new RegExp(`\\b${w.mode}\\b`, 'i').test(w.name) ? w.name : `${w.name} (${w.mode})`;
}
