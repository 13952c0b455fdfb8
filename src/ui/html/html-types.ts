/**
 * @module
 * The type of an HTML fragment: what `hono/html`'s `html` tag returns (escaped text, possibly awaiting
 * nothing — the UI never puts promises into templates).
 */
import type { html } from "hono/html";

/** An HTML fragment built with `html`. */
export type Html = ReturnType<typeof html>;
