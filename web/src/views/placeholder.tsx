// A view that another part of the work builds (admin pages): says so instead of a blank page.
import { Page } from '../components/page';

export function placeholder(title: string) {
  return function Placeholder() {
    return (
      <Page title={title}>
        <p>Not built yet.</p>
      </Page>
    );
  };
}
