// Labelled form controls shared by the filter forms (findings, alerts). Text only: labels and values are text nodes.
import type { Severity } from '../types';
import { SEVERITIES } from '../types';

export interface SelectOption<T extends string = string> {
  value: T;
  label: string;
}

/** Values as options labelled by themselves, keeping `current` (from the URL) first when none of them is it any more. */
export function valueOptions<T extends string>(values: readonly T[], current?: T): SelectOption<T>[] {
  const options = values.map((v) => ({ value: v, label: v }));
  return current && !values.includes(current) ? [{ value: current, label: current }, ...options] : options;
}

const SEVERITY_MATCH_OPTIONS = [
  { value: 'at_least', label: 'at least' },
  { value: 'exact', label: 'exactly' },
] as const;
type SeverityMatch = (typeof SEVERITY_MATCH_OPTIONS)[number]['value'];

/** Whether suppressed findings or alerts are listed. */
export const SUPPRESSED_OPTIONS = [
  { value: 'false', label: 'Hide suppressed' },
  { value: 'true', label: 'Only suppressed' },
  { value: 'all', label: 'Show all' },
] as const;

/**
 * A labelled select. With `any`, a first option of value "" stands for no choice (shown while `value` is undefined);
 * a change calls `onChange` with the option's value, or undefined for that one.
 */
export function SelectField<T extends string = string>({
  id,
  label,
  value,
  options,
  any,
  disabled,
  onChange,
}: {
  id: string;
  label: string;
  value: T | undefined;
  options: readonly SelectOption<T>[];
  any?: string;
  disabled?: boolean;
  onChange(value: T | undefined): void;
}) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select
        id={id}
        value={value ?? ''}
        disabled={disabled}
        onChange={(e) => onChange((e.currentTarget.value || undefined) as T | undefined)}
      >
        {any !== undefined ? <option value="">{any}</option> : null}
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </div>
  );
}

/** A severity filter (`<prefix>-severity`, any by default) and how it matches (`<prefix>-mode`, once one is chosen). */
export function SeverityFields({
  idPrefix,
  severity,
  severityMode,
  onChange,
}: {
  idPrefix: string;
  severity: Severity | undefined;
  severityMode: SeverityMatch;
  onChange(patch: { severity?: Severity; severityMode?: SeverityMatch }): void;
}) {
  return (
    <>
      <SelectField
        id={`${idPrefix}-severity`}
        label="Severity"
        any="Any"
        value={severity}
        options={valueOptions(SEVERITIES)}
        onChange={(v) => onChange({ severity: v })}
      />
      <SelectField
        id={`${idPrefix}-mode`}
        label="Severity match"
        value={severityMode}
        options={SEVERITY_MATCH_OPTIONS}
        disabled={!severity}
        onChange={(v) => v && onChange({ severityMode: v })}
      />
    </>
  );
}
