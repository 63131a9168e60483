/** The gitlab forge's server settings (`gitlab*`): its server, the token it acts with, its webhook's secret, who may command. */
import { Type } from '@sinclair/typebox';
import { nullable, oneOf, setting } from '../../lib/settings.js';
import type { SettingValues } from '../definition.js';

/** GitLab's access levels by role name (members API). */
export const ACCESS_LEVELS = { developer: 30, maintainer: 40, owner: 50 } as const;

export const GITLAB_SETTINGS = {
  /** The GitLab server (docs/gitlab.md); its API is `<gitlabUrl>/api/v4`. */
  gitlabUrl: setting(Type.String({ pattern: '^https?://[^/]' }), {
    default: 'https://gitlab.com',
    env: 'GREENLINE_GITLAB_URL',
    description:
      'web address of the GitLab server (https://gitlab.com, or a self-managed one such as https://gitlab.example.com; its API is `<url>/api/v4`): where `repo connect --forge gitlab` finds repositories unless --gitlab-url says',
    mustBe: 'be an http(s) URL such as https://gitlab.example.com',
    trimSlashes: true,
  }),
  gitlabToken: setting(nullable(Type.String({ minLength: 1 })), {
    default: null,
    env: 'GREENLINE_GITLAB_TOKEN',
    description:
      'access token greenline acts with on GitLab (a project or group access token, or a bot user’s personal access token, scope `api`; sent as `PRIVATE-TOKEN` and as the password of git over HTTPS); the gitlab forge is available when it is set',
    defaultText: 'none (no gitlab forge)',
    secret: true,
  }),
  gitlabWebhookSecret: setting(nullable(Type.String({ minLength: 1 })), {
    default: null,
    env: 'GREENLINE_GITLAB_WEBHOOK_SECRET',
    description:
      'the project webhook’s signing token (`whsec_…`, GitLab 19.0+: deliveries must carry a valid Standard Webhooks signature) or, on older GitLab, its secret token (compared with `X-Gitlab-Token`); `POST /webhooks/gitlab` is served only when it is set',
    defaultText: 'none (no `/webhooks/gitlab`)',
    secret: true,
  }),
  /** The least role whose `/greenline` notes and labels act (permissions.ts). */
  gitlabCommandRole: setting(oneOf(['developer', 'maintainer', 'owner']), {
    default: 'developer',
    env: 'GREENLINE_GITLAB_COMMAND_ROLE',
    description:
      'least role in the project a person needs for `/greenline merge` and `/greenline cancel` notes to act (developer, maintainer or owner)',
  }),
};

export type GitlabSettings = SettingValues<typeof GITLAB_SETTINGS>;
