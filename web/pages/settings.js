// @ts-check
// The queue settings page, #/settings/<host>/<owner>/<name>/<branch>: every setting getQueue answers,
// with its meaning as the server's own schema says it (the descriptions of GET /v1/openapi.json, the
// same text the API reference and the CLI's help show), a form that changes them through updateQueue,
// the queue's state controls (pause, resume, drain) and its freezes. The server judges every value:
// the page sends what was typed and shows the server's refusal beside the field it names.
// Its parts are in ../settings/: the schema read, the fields, the changes saving sends, the sections.
import { ApiError, call, failed } from '../api.js';
import { errorText, usePageTitle } from '../components.js';
import { announce, confirmDialog } from '../dom.js';
import { queueHref, queueLabel } from '../links.js';
import { ManagementBanner } from '../queue-state.js';
import { changesOf, formValue, refusedSetting, refusalWords, savedText } from '../settings/changes.js';
import { SettingsGroup } from '../settings/fields.js';
import { FreezeSection } from '../settings/freezes.js';
import { OutcomeLine } from '../settings/outcome.js';
import { groupsOf, kindOf, settingOf } from '../settings/schema.js';
import { StateControls } from '../settings/state-controls.js';
import { useScopes } from '../permissions.js';
import { html, useCallback, useEffect, useState } from '../ui.js';

/** @typedef {import('../../src/client/index.js').Queue} Queue */
/** @typedef {import('../../src/client/index.js').QueueSettings} QueueSettings */
/** @typedef {import('../../src/client/index.js').QueueActivity} QueueActivity */
/** @typedef {import('../../src/client/index.js').QueueRequest} QueueKey */
/** @typedef {import('../settings/schema.js').Schemas} Schemas */
/** @typedef {import('../settings/changes.js').FormValue} FormValue */
/** @typedef {import('../settings/outcome.js').Outcome} Outcome */
/** @typedef {import('../settings/outcome.js').Run} Run */

/** @type {Promise<Schemas> | undefined} */
let schemasLoaded;

/** The settings' schemas from the server's OpenAPI document, read once per page load. */
function loadSchemas() {
  schemasLoaded ??= fetch('/v1/openapi.json')
    .then(async (res) => {
      if (!res.ok) throw new ApiError(res.status, `HTTP_${res.status}`, 'GET /v1/openapi.json failed');
      const doc = await res.json();
      return {
        input: doc.paths['/v1/updateQueue'].post.requestBody.content['application/json'].schema.properties,
        output: doc.paths['/v1/getQueue'].post.responses['200'].content['application/json'].schema.properties,
      };
    })
    .catch((err) => {
      schemasLoaded = undefined;
      throw err;
    });
  return schemasLoaded;
}

/** @param {{ queueKey: QueueKey }} props */
export function SettingsPage({ queueKey }) {
  const [loaded, setLoaded] = useState(
    /** @type {{ q: Queue, activity: QueueActivity, schemas: Schemas } | null} */ (null),
  );
  const [problem, setProblem] = useState(/** @type {string | null} */ (null));
  /** The form's values the user changed, by setting; the others show the queue's. */
  const [draft, setDraft] = useState(/** @type {Record<string, FormValue>} */ ({}));
  const [errors, setErrors] = useState(/** @type {Record<string, string>} */ ({}));
  const [saved, setSaved] = useState(/** @type {Outcome | null} */ (null));
  const title = queueLabel(queueKey);
  // A token without queues:write sees the settings and may change none of them.
  const can = useScopes();
  const writable = can('queues:write');

  const reload = useCallback(async () => {
    try {
      const [q, activity, schemas] = await Promise.all([
        call('getQueue', queueKey),
        call('getQueueActivity', queueKey),
        loadSchemas(),
      ]);
      setLoaded({ q, activity, schemas });
      return true;
    } catch (err) {
      if (!failed(err)) setProblem(errorText(err));
      return false;
    }
  }, [queueKey]);

  useEffect(() => {
    reload();
  }, [reload]);
  usePageTitle(loaded ? `Settings of ${title}` : problem ? `Cannot show the settings of ${title}` : null);

  if (problem) {
    return html`<div class="card">
      <h1>Settings of ${title}</h1>
      <p class="error" role="alert">${problem}</p>
      <p><a href=${queueHref(queueKey)}>Back to the queue</a></p>
    </div>`;
  }
  if (!loaded) return html`<p class="notice" role="status">Loading…</p>`;
  const { q, activity, schemas } = loaded;
  const groups = groupsOf(schemas);
  const names = groups.flatMap((g) => g.fields);
  /** @param {string} name */
  const kind = (name) => kindOf(schemas.input[name] ?? {});
  /** @param {string} name */
  const shown = (name) =>
    draft[name] ?? formValue(kind(name), settingOf(q, name), activity.testingTimeoutMinutesInForce);
  const managed = activity.managedBy === 'terraform';

  /** @type {Run} The page is reloaded after a change. */
  const run = async (dialog, body, done) => {
    if (!(await confirmDialog(dialog))) return null;
    try {
      /** @type {QueueSettings} */
      const after = await call('updateQueue', { ...queueKey, ...body });
      const text = done(after);
      announce(text);
      await reload();
      return { ok: true, text };
    } catch (err) {
      if (failed(err)) return null;
      const text = `${dialog.action} failed: ${errorText(err)}`;
      announce(text);
      return { ok: false, text };
    }
  };

  const save = async (/** @type {Event} */ event) => {
    event.preventDefault();
    setErrors({});
    const { body, changed } = changesOf(names, kind, shown, q);
    if (changed.length === 0) {
      setSaved({ ok: true, text: 'Nothing to save: every setting is as the queue has it.' });
      return;
    }
    if (
      managed &&
      !(await confirmDialog({
        title: 'Change settings Terraform manages?',
        text:
          `Terraform manages this queue: saving ${changed.join(', ')} here makes the queue drift from Terraform's ` +
          'configuration (it shows as changed outside Terraform), and the next terraform apply sets them back ' +
          'unless the configuration changes too.',
        action: 'Save anyway',
      }))
    ) {
      setSaved({ ok: false, text: 'Not saved: cancelled. Nothing was changed.' });
      return;
    }
    try {
      /** @type {QueueSettings} */
      const after = await call('updateQueue', { ...queueKey, ...body });
      const text = savedText(changed, q, after);
      // The queue as it is now first, then the form without the changes it now holds: no flash of the old values.
      await reload();
      setDraft({});
      setSaved({ ok: true, text });
      announce(text);
    } catch (err) {
      if (failed(err)) return;
      const message = err instanceof ApiError ? err.message : String(err);
      const at = refusedSetting(message, names);
      if (at) setErrors({ [at]: refusalWords(message, at) });
      const text = `Not saved: ${errorText(err)}. Nothing was changed.`;
      setSaved({ ok: false, text });
      announce(text);
      if (at) document.getElementById(`setting-${at}`)?.focus();
    }
  };

  return html`<article aria-labelledby="settings-title" class="settings-page">
    <div class="page-head">
      <h1 id="settings-title">Settings of ${title}</h1>
      <a href=${queueHref(queueKey)}>Back to the queue</a>
    </div>
    <${ManagementBanner} activity=${activity} />
    ${writable ? html`<${StateControls} q=${q} activity=${activity} title=${title} run=${run} />` : null}
    <form class="settings-form" noValidate onSubmit=${save} aria-labelledby="form-title">
      <h2 id="form-title">Settings</h2>
      ${
        writable
          ? html`<p class="muted">Each setting by its API name, with what it means. Saving sends only the settings you
        changed to updateQueue; the server checks them and names any it refuses.</p>`
          : html`<p class="notice" id="read-only-note">Each setting by its API name, with what it means. This API token
        may not change them: that needs the scope queues:write (greenline token create --scopes queues:write).</p>`
      }
      <fieldset class="plain" disabled=${!writable}>
      ${groups.map(
        (g) => html`<${SettingsGroup} key=${g.title} group=${g} schemas=${schemas} q=${q} activity=${activity}
          kind=${kind} shown=${shown} errors=${errors}
          onChange=${(/** @type {string} */ name, /** @type {FormValue} */ v) => setDraft((d) => ({ ...d, [name]: v }))} />`,
      )}
      </fieldset>
      ${
        writable
          ? html`<div class="actions save-bar">
        <button type="submit">Save settings</button>
        <${OutcomeLine} outcome=${saved} id="save-outcome" />
      </div>`
          : null
      }
    </form>
    ${writable ? html`<${FreezeSection} q=${q} activity=${activity} schemas=${schemas} title=${title} run=${run} />` : null}
  </article>`;
}
