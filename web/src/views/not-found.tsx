import { Page } from '../components/page';
import { paths } from '../paths';

export default function NotFound() {
  return (
    <Page title="Page not found">
      <p>
        There is nothing here. <a href={paths.projects()}>Go to the projects</a>.
      </p>
    </Page>
  );
}
