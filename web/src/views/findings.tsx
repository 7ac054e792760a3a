import { Page } from '../components/page';

export default function View() {
  return (
    <Page title="findings">
      <p>Not built yet.</p>
    </Page>
  );
}
