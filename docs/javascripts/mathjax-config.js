// Formulas are written as \( … \) and \[ … \] (pymdownx.arithmatex, generic mode) and typeset
// by MathJax where the browser can load it; offline, the TeX source stays readable as written.
window.MathJax = {
  tex: { inlineMath: [["\\(", "\\)"]], displayMath: [["\\[", "\\]"]], processEscapes: true },
  options: { ignoreHtmlClass: ".*|", processHtmlClass: "arithmatex" },
};
