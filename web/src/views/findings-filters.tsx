// The findings filters form: every control labelled; a change goes into the URL (the view reads the URL).
import { SelectField, SeverityFields, SUPPRESSED_OPTIONS, valueOptions } from '../components/fields';
import type { FindingFilters } from '../filters';
import type { ScanModule } from '../types';

const GROUP_OPTIONS = [
  { value: 'module', label: 'Module' },
  { value: 'dependency', label: 'Introducing dependency' },
  { value: 'none', label: 'No grouping' },
] as const;

export function FiltersForm({
  f,
  modules,
  onChange,
}: {
  f: FindingFilters;
  modules: ScanModule[];
  onChange(next: FindingFilters): void;
}) {
  const teams = [...new Set(modules.map((m) => m.teamName).filter((t): t is string => !!t))].sort();
  const set = (patch: Partial<FindingFilters>) => onChange({ ...f, ...patch });
  return (
    <form class="filters" aria-label="Findings filters" onSubmit={(e) => e.preventDefault()}>
      <fieldset>
        <legend>View</legend>
        <label>
          <input
            type="radio"
            name="attribution"
            value="introduced"
            checked={f.attribution === 'introduced'}
            onChange={() => set({ attribution: 'introduced' })}
          />{' '}
          Introduced
        </label>
        <label>
          <input
            type="radio"
            name="attribution"
            value="affected"
            checked={f.attribution === 'affected'}
            onChange={() => set({ attribution: 'affected' })}
          />{' '}
          Affected
        </label>
      </fieldset>
      <SelectField
        id="f-module"
        label="Module"
        any="All modules"
        value={f.module}
        options={valueOptions(
          modules.map((m) => m.path),
          f.module,
        )}
        onChange={(module) => set({ module })}
      />
      <SelectField
        id="f-team"
        label="Team"
        any="All teams"
        value={f.team}
        options={valueOptions(teams, f.team)}
        onChange={(team) => set({ team })}
      />
      <SeverityFields idPrefix="f" severity={f.severity} severityMode={f.severityMode} onChange={set} />
      <SelectField
        id="f-suppressed"
        label="Suppressed"
        value={f.suppressed}
        options={SUPPRESSED_OPTIONS}
        onChange={(suppressed) => suppressed && set({ suppressed })}
      />
      <SelectField
        id="f-group"
        label="Group by"
        value={f.group}
        options={GROUP_OPTIONS}
        onChange={(group) => group && set({ group })}
      />
    </form>
  );
}
