/** Small HTML builders shared by the dashboard screens. Every dynamic value goes through `escapeHtml`. */

const HTML_ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (character) => HTML_ESCAPES[character] ?? character);
}

export interface FieldOptions {
  readonly type?: string;
  readonly required?: boolean;
  readonly hint?: string;
  readonly attributes?: string;
}

/**
 * A labelled input with the place where the API's error for this field is
 * shown (the script fills `#<form>-<name>-error`, referenced by aria-describedby).
 */
export function field(form: string, name: string, label: string, options: FieldOptions = {}): string {
  const id = `${form}-${name}`;
  const hint = options.hint === undefined ? '' : `<p class="hint" id="${id}-hint">${escapeHtml(options.hint)}</p>`;
  const described = options.hint === undefined ? `${id}-error` : `${id}-hint ${id}-error`;
  return (
    `<div class="field"><label for="${id}">${escapeHtml(label)}</label>` +
    `<input id="${id}" name="${name}" type="${options.type ?? 'text'}"${options.required === true ? ' required' : ''} aria-describedby="${described}"${options.attributes ?? ''}>` +
    `${hint}<p class="error" id="${id}-error" data-error-for="${name}"></p></div>`
  );
}

export function select(form: string, name: string, label: string, choices: readonly (readonly [string, string])[], attributes = ''): string {
  const id = `${form}-${name}`;
  const options = choices.map(([value, text]) => `<option value="${escapeHtml(value)}">${escapeHtml(text)}</option>`).join('');
  return (
    `<div class="field"><label for="${id}">${escapeHtml(label)}</label>` +
    `<select id="${id}" name="${name}" aria-describedby="${id}-error"${attributes}>${options}</select>` +
    `<p class="error" id="${id}-error" data-error-for="${name}"></p></div>`
  );
}

/** A group of checkboxes sent as an array under `name`. */
export function checkboxes(form: string, name: string, legend: string, choices: readonly (readonly [string, string, boolean])[]): string {
  const boxes = choices
    .map(
      ([value, text, checked]) =>
        `<label class="check"><input type="checkbox" name="${name}" value="${escapeHtml(value)}"${checked ? ' checked' : ''}> ${escapeHtml(text)}</label>`,
    )
    .join('');
  return `<fieldset class="field" aria-describedby="${form}-${name}-error"><legend>${escapeHtml(legend)}</legend>${boxes}<p class="error" id="${form}-${name}-error" data-error-for="${name}"></p></fieldset>`;
}

/**
 * A form the script submits to the API (`data-action` names its handler).
 * `write` forms stay hidden until the script knows the person may write:
 * a viewer never sees a control the API would refuse.
 */
export function form(id: string, action: string, body: string, submit: string, options: { write?: boolean; hidden?: boolean } = {}): string {
  const hidden = options.write === true || options.hidden === true ? ' hidden' : '';
  const write = options.write === true ? ' data-write' : '';
  return (
    `<form id="${id}" data-action="${action}" novalidate${write}${hidden}>${body}` +
    `<p class="error" data-form-error role="alert"></p><button type="submit" class="primary">${escapeHtml(submit)}</button></form>`
  );
}

/** A table whose rows the script writes; `headers` are the column names. */
export function table(id: string, caption: string, headers: readonly string[], empty: string): string {
  const head = headers.map((header) => `<th scope="col">${escapeHtml(header)}</th>`).join('');
  return (
    `<div class="table-wrap"><table id="${id}"><caption class="visually-hidden">${escapeHtml(caption)}</caption><thead><tr>${head}</tr></thead>` +
    `<tbody></tbody></table></div><p class="muted" data-empty-for="${id}" hidden>${escapeHtml(empty)}</p>`
  );
}
