import type { ViewProps } from '../routes';

export function SuiteView({ params }: ViewProps) {
  return (
    <section>
      <h1>Suite {params.suiteId}</h1>
    </section>
  );
}
