/** The gitea forge adapter (`--forge gitea`, Gitea and Forgejo): its definition, and gitea-forge.ts. */
export { giteaForge } from './definition.js';
export { GiteaForge, type GiteaForgeOptions, type GiteaRepositoryFacts } from './gitea-forge.js';
export { ciStateOf, GITEA_WEBHOOK_EVENTS, readGiteaDelivery } from './webhook-events.js';
