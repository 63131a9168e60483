import type { ApiApp } from '../route-deps.js';
import type { V2Deps } from './plugin.js';

/** Each file under v2/routes/ exports one of these: it registers one v2 operation. */
export type V2Route = (app: ApiApp, deps: V2Deps) => void;
