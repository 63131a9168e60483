/** The gitea forge's server settings (`gitea*`): its server, the token it acts with, its webhook's secret. */
import { Type } from '@sinclair/typebox';
import { nullable, setting } from '../../lib/settings.js';
import { ForgeSettingsError, type SettingValues } from '../definition.js';

export const GITEA_SETTINGS = {
  /** The Gitea or Forgejo server of the gitea forge (docs/gitea.md); its API is `<giteaUrl>/api/v1`. */
  giteaUrl: setting(nullable(Type.String({ pattern: '^https?://[^/]' })), {
    default: null,
    env: 'GREENLINE_GITEA_URL',
    description:
      'web address of the Gitea or Forgejo server (e.g. https://git.example.com, or https://codeberg.org; its API is `<url>/api/v1`): where `repo connect --forge gitea` finds repositories of its host',
    defaultText: 'none (`https://HOST` of each repository)',
    mustBe: 'be an http(s) URL such as https://git.example.com',
    trimSlashes: true,
  }),
  giteaToken: setting(nullable(Type.String({ minLength: 1 })), {
    default: null,
    env: 'GREENLINE_GITEA_TOKEN',
    description:
      'access token of the Gitea or Forgejo user greenline acts as (sent as `Authorization: token …`; scopes in docs/gitea.md); the gitea forge is available when it is set',
    defaultText: 'none (no gitea forge)',
    secret: true,
  }),
  giteaWebhookSecret: setting(nullable(Type.String({ minLength: 1 })), {
    default: null,
    env: 'GREENLINE_GITEA_WEBHOOK_SECRET',
    description:
      'secret of the Gitea or Forgejo webhook; `POST /webhooks/gitea` is served only when it is set (without it, polling alone)',
    defaultText: 'none (no `/webhooks/gitea`)',
    secret: true,
  }),
};

export type GiteaSettings = SettingValues<typeof GITEA_SETTINGS>;

/** A server without the token to act on it cannot work. */
export function checkGiteaSettings(s: GiteaSettings): void {
  if (s.giteaUrl !== null && s.giteaToken === null) {
    throw new ForgeSettingsError(
      'giteaUrl needs giteaToken: the token of the Gitea or Forgejo user greenline acts as (see docs/gitea.md)',
    );
  }
}
