import type { ConfigDocument } from '@ipfe/schema';
import { keyedConfig, linesOf } from './document-lines';

export function RevisionDocument({ document }: { document: ConfigDocument }) {
  const config = document.config;
  return (
    <>
      <dl className="facts">
        <dt>Revision</dt>
        <dd>{document.revision}</dd>
        <dt>SHA-256</dt>
        <dd>
          <code>{document.sha256}</code>
        </dd>
        <dt>Contents</dt>
        <dd>
          {config.targetSets.length} Target Sets, {config.appServers.length} application servers,{' '}
          {config.xsiNetworks.length} XSI networks, {config.peerNodeGroups.length} peer node groups
        </dd>
      </dl>
      <pre
        className="document"
        tabIndex={0}
        aria-label={`Configuration of revision ${document.revision}`}
      >
        {linesOf(keyedConfig(config))
          .map((l) => l.text)
          .join('\n')}
      </pre>
    </>
  );
}
