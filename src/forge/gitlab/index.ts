/** The gitlab forge: its definition (what greenline knows of it) and its adapter. */
export { gitlabForge } from './definition.js';
export { GitlabForge, type GitlabForgeOptions } from './gitlab-forge.js';
