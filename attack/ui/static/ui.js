// The UI's script: the Menu button of narrow screens; the progress of a background run.
"use strict";
// On a narrow screen the side navigation is folded; the Menu button in the header opens it.
(function () {
  const menu = document.getElementById("menu");
  const side = document.getElementById("side");
  if (!menu || !side) return;
  menu.addEventListener("click", function () {
    const open = side.classList.toggle("open");
    menu.setAttribute("aria-expanded", open ? "true" : "false");
  });
})();
// Progress of a background run: ask the server every half second, reload when it has ended.
(function () {
  const job = document.getElementById("job");
  if (!job || job.dataset.running !== "true") return;
  const bar = document.getElementById("progress");
  const stage = document.getElementById("stage");
  const seconds = document.getElementById("seconds");
  const tick = function () {
    fetch("/job", {credentials: "same-origin"}).then(function (r) { return r.json(); }).then(function (s) {
      if (!s.running) { window.location.reload(); return; }
      if (s.percent !== null) bar.value = s.percent; else bar.removeAttribute("value");
      stage.textContent = s.stage;
      seconds.textContent = s.seconds;
      setTimeout(tick, 500);
    }).catch(function () { setTimeout(tick, 2000); });
  };
  setTimeout(tick, 500);
})();
