"""Reports rendered from result documents: Markdown, HTML and the printable certificate."""
