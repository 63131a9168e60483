// @ts-check
// The dashboard's component toolkit: Preact with htm's tagged templates (no build step). Components
// are functions of their props returning `html\`…\``; Preact patches the DOM in place, so live updates
// keep focus and scroll. Text is always escaped; nothing is parsed as HTML.
import htm from 'htm';
import { h, render } from 'preact';

/** `html\`<div class=${cls}>${text}</div>\`` builds Preact elements. */
export const html = htm.bind(h);
export { render };
export { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
