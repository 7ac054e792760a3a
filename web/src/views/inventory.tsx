import { Page } from '../components/page';

export default function View() {
  return (
    <Page title="inventory">
      <p>Not built yet.</p>
    </Page>
  );
}
