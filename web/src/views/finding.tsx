import { Page } from '../components/page';

export default function View() {
  return (
    <Page title="finding">
      <p>Not built yet.</p>
    </Page>
  );
}
