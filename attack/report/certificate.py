"""The printable HTML page of a certificate."""

from __future__ import annotations

import html
import json


def render_html(certificate: dict) -> str:
    """A printable, self-contained HTML page of the certificate."""
    esc = html.escape
    verdict = certificate["verdict"]
    rows = "".join(
        f"<tr><td>{esc(i['role'])}</td><td>{esc(str(i.get('path') or i.get('source')))}</td>"
        f"<td><code>{esc(i['sha256'])}</code></td></tr>"
        for i in certificate["inputs"]
    )
    runs = []
    for run in certificate["results"]:
        gammas = list(run["overall"].get("disclosure_risk", {}))
        head = "".join(f"<th>P γ={esc(g)}</th>" for g in gammas)
        body = "".join(
            "<tr>"
            + f"<td>{esc(', '.join(f'{k}={v}' for k, v in c['cell'].items()) or 'all units')}</td>"
            + f"<td>{c['n_verifiable']}</td><td>{c['reidentification_rate']:.4f}</td>"
            + "".join(f"<td>{c['disclosure_risk'][g]:.4f}</td>" for g in gammas)
            + f"<td>{'pass' if c['passed'] else 'FAIL'}</td></tr>"
            for c in run["cells"]
        )
        runs.append(
            f"<h2>{esc(run['name'])}</h2><p>τ = {run['tau']}</p><table><tr><th>cell</th><th>n</th>"
            f"<th>hit rate</th>{head}<th></th></tr>{body}</table>"
        )
    scenario = esc(json.dumps(certificate["scenario"], indent=2, ensure_ascii=False))
    colour = "#1b5e20" if verdict["factually_anonymous"] else "#b71c1c"
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        "<title>attack certificate</title><style>body{font-family:sans-serif;max-width:60em;"
        "margin:auto;padding:1em}table{border-collapse:collapse;display:block;overflow-x:auto}"
        "td,th{border:1px solid #999;padding:.2em .5em;font-size:90%}code,pre{font-size:80%;"
        "word-break:break-all;white-space:pre-wrap}</style></head><body>"
        f"<h1>Factual-anonymity certificate</h1><p style='color:{colour}'><strong>"
        f"{esc(verdict['statement'])}</strong></p><p>{esc(verdict['scope'])}</p>"
        f"<p>attack {esc(certificate['tool']['version'])} · created {esc(certificate['created'])}</p>"
        f"<h2>Inputs</h2><table><tr><th>role</th><th>file</th><th>SHA-256</th></tr>{rows}</table>"
        + "".join(runs)
        + f"<h2>Scenario as run</h2><pre>{scenario}</pre>"
        f"<p>Digest (SHA-256 over the certificate): <code>{esc(certificate['digest'])}</code></p>"
        "<p>Verify with <code>attack verify certificate.json</code>.</p></body></html>\n"
    )
