/**
 * A notice as a Microsoft Teams message: an Adaptive Card (types of @microsoft/teams.cards) in the
 * message envelope a Teams workflow ("When a Teams webhook request is received") accepts.
 */
import type { CardElement, IAdaptiveCard, IOpenUrlAction } from '@microsoft/teams.cards';
import { contextLine, headline, links, type Notice, reasonLine } from './notice.js';

export interface TeamsMessage {
  type: 'message';
  attachments: { contentType: 'application/vnd.microsoft.card.adaptive'; contentUrl: null; content: IAdaptiveCard }[];
}

const ATTENTION: ReadonlySet<string> = new Set(['failed', 'cancelled', 'pending_failure']);

export function adaptiveCard(n: Notice): IAdaptiveCard {
  const body: CardElement[] = [
    {
      type: 'TextBlock',
      text: headline(n),
      size: 'Medium',
      weight: 'Bolder',
      wrap: true,
      ...(ATTENTION.has(n.event) ? { color: 'Attention' as const } : {}),
    },
  ];
  if (n.pr) body.push({ type: 'TextBlock', text: reasonLine(n.pr), wrap: true });
  body.push({ type: 'TextBlock', text: contextLine(n), wrap: true, isSubtle: true, size: 'Small' });
  const actions: IOpenUrlAction[] = links(n).map((l) => ({ type: 'Action.OpenUrl', title: l.label, url: l.url }));
  return {
    type: 'AdaptiveCard',
    $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
    version: '1.4',
    body,
    ...(actions.length > 0 ? { actions } : {}),
  };
}

export function teamsMessage(n: Notice): TeamsMessage {
  return {
    type: 'message',
    attachments: [
      { contentType: 'application/vnd.microsoft.card.adaptive', contentUrl: null, content: adaptiveCard(n) },
    ],
  };
}
