/**
 * Labelled form controls: every field is a `div.field` whose label names its control (`for` =
 * the control's id) and whose hint, when there is one, has the id `<id>-hint` and describes the
 * control (`aria-describedby`), so screen readers read both and the browser tests find the
 * control by its label.
 */
import type { ComponentChildren, InputHTMLAttributes } from 'preact';

/** The frame of one control: its label, the control (`children`, carrying `id`) and its hint. */
export function Field({
  id,
  label,
  hint,
  wide = false,
  children,
}: {
  id: string;
  label: string;
  hint?: ComponentChildren;
  wide?: boolean;
  children: ComponentChildren;
}) {
  return (
    <div class={wide ? 'field field-wide' : 'field'}>
      <label for={id}>{label}</label>
      {children}
      {hint && (
        <span id={`${id}-hint`} class="hint">
          {hint}
        </span>
      )}
    </div>
  );
}

/** The id of a field's hint, for the control's `aria-describedby` (none without a hint). */
function describedBy(id: string, hint: ComponentChildren): string | undefined {
  return hint ? `${id}-hint` : undefined;
}

type InputProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'id' | 'label' | 'value' | 'list' | 'onInput'>;

/**
 * A text input (or search, password...: `type`) in a Field; `onValue` gets the text on every
 * keystroke. `suggest` adds a datalist of values the browser offers while typing. Every other
 * prop (required, maxLength, placeholder, autocomplete...) goes to the input.
 */
export function TextField({
  id,
  label,
  hint,
  value,
  onValue,
  suggest,
  ...input
}: InputProps & {
  id: string;
  label: string;
  hint?: ComponentChildren;
  value: string;
  onValue: (value: string) => void;
  suggest?: { id: string; values: readonly string[] };
}) {
  return (
    <Field id={id} label={label} hint={hint}>
      <input
        {...input}
        id={id}
        list={suggest?.id}
        aria-describedby={describedBy(id, hint)}
        value={value}
        onInput={(e) => onValue(e.currentTarget.value)}
      />
      {suggest && (
        <datalist id={suggest.id}>
          {suggest.values.map((v) => (
            <option key={v} value={v} />
          ))}
        </datalist>
      )}
    </Field>
  );
}

/** One choice of a SelectField: a value shown as itself, or a value with its label. */
export type Choice<T extends string = string> = T | { value: T; label: string };

const asOption = <T extends string>(c: Choice<T>) => (typeof c === 'string' ? { value: c, label: c } : c);

/**
 * A select in a Field (a "Choose…" entry is just the first choice). `onValue` gets one of the
 * choices' values, typed as they are (an OrgRole's names, say).
 */
export function SelectField<T extends string>(props: {
  id: string;
  label: string;
  hint?: ComponentChildren;
  wide?: boolean;
  value: T;
  onValue: (value: T) => void;
  choices: readonly Choice<T>[];
}) {
  return (
    <Field id={props.id} label={props.label} hint={props.hint} wide={props.wide}>
      <select
        id={props.id}
        value={props.value}
        aria-describedby={describedBy(props.id, props.hint)}
        // The select offers only the choices' values.
        onChange={(e) => props.onValue(e.currentTarget.value as T)}
      >
        {props.choices.map(asOption).map((c) => (
          <option key={c.value} value={c.value}>
            {c.label}
          </option>
        ))}
      </select>
    </Field>
  );
}

/** A row of radio buttons (`fieldset.segmented`) choosing one of `choices`. */
export function Segmented<T extends string>(props: {
  legend: string;
  name: string;
  value: T;
  onValue: (value: T) => void;
  choices: readonly { value: T; label: string }[];
}) {
  return (
    <fieldset class="segmented">
      <legend>{props.legend}</legend>
      {props.choices.map((c) => (
        <label key={c.value}>
          <input type="radio" name={props.name} value={c.value} checked={props.value === c.value} onChange={() => props.onValue(c.value)} />
          {c.label}
        </label>
      ))}
    </fieldset>
  );
}
