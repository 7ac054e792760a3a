import type { ComponentChildren } from 'preact';
import { Page } from '../components/page';
import { paths } from '../paths';

/** The not-found view: a page that does not exist, or (with a title and words) a thing of a route that does not. */
export function NotFoundView({ title, children }: { title?: string; children?: ComponentChildren }) {
  return (
    <Page title={title ?? 'Page not found'}>
      <p role={children ? 'alert' : undefined}>
        {children ?? 'There is nothing here.'} <a href={paths.projects()}>Go to the projects</a>.
      </p>
    </Page>
  );
}

export default function NotFound() {
  return <NotFoundView />;
}
