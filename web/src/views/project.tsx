import { Page } from '../components/page';

export default function View() {
  return (
    <Page title="project">
      <p>Not built yet.</p>
    </Page>
  );
}
