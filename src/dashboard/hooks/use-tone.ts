import { createContext, useContext } from 'react';
import type { Tone } from '../format.ts';

/** false when NO_COLOR is set: components then pass no colours at all (styles such as bold stay). */
export const ColorContext = createContext(true);

/** Returns a function that maps a tone to an Ink colour, or to nothing under NO_COLOR. */
export function useTone(): (tone: Tone) => string | undefined {
  const color = useContext(ColorContext);
  return (tone) => (color ? tone : undefined);
}
