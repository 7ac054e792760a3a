// The findings filters form: every control labelled; a change goes into the URL (the view reads the URL).
import type { FindingFilters } from '../filters';
import type { ScanModule } from '../types';
import { SEVERITIES } from '../types';

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
      <div class="field">
        <label for="f-module">Module</label>
        <select
          id="f-module"
          value={f.module ?? ''}
          onChange={(e) => set({ module: e.currentTarget.value || undefined })}
        >
          <option value="">All modules</option>
          {f.module && !modules.some((m) => m.path === f.module) ? <option value={f.module}>{f.module}</option> : null}
          {modules.map((m) => (
            <option key={m.path} value={m.path}>
              {m.path}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="f-team">Team</label>
        <select id="f-team" value={f.team ?? ''} onChange={(e) => set({ team: e.currentTarget.value || undefined })}>
          <option value="">All teams</option>
          {f.team && !teams.includes(f.team) ? <option value={f.team}>{f.team}</option> : null}
          {teams.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="f-severity">Severity</label>
        <select
          id="f-severity"
          value={f.severity ?? ''}
          onChange={(e) => set({ severity: (e.currentTarget.value || undefined) as FindingFilters['severity'] })}
        >
          <option value="">Any</option>
          {SEVERITIES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="f-mode">Severity match</label>
        <select
          id="f-mode"
          value={f.severityMode}
          disabled={!f.severity}
          onChange={(e) => set({ severityMode: e.currentTarget.value as FindingFilters['severityMode'] })}
        >
          <option value="at_least">at least</option>
          <option value="exact">exactly</option>
        </select>
      </div>
      <div class="field">
        <label for="f-suppressed">Suppressed</label>
        <select
          id="f-suppressed"
          value={f.suppressed}
          onChange={(e) => set({ suppressed: e.currentTarget.value as FindingFilters['suppressed'] })}
        >
          <option value="false">Hide suppressed</option>
          <option value="true">Only suppressed</option>
          <option value="all">Show all</option>
        </select>
      </div>
      <div class="field">
        <label for="f-group">Group by</label>
        <select
          id="f-group"
          value={f.group}
          onChange={(e) => set({ group: e.currentTarget.value as FindingFilters['group'] })}
        >
          <option value="module">Module</option>
          <option value="dependency">Introducing dependency</option>
          <option value="none">No grouping</option>
        </select>
      </div>
    </form>
  );
}
