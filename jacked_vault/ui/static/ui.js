// jacked-vault review page: keyboard shortcuts and small conveniences. Every page works without
// this script (forms post, links navigate); it never builds HTML from vault text.
(function () {
  "use strict";

  function typing(event) {
    var t = event.target;
    return t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName));
  }

  var candidates = Array.prototype.slice.call(document.querySelectorAll("li.candidate"));
  var selected = candidates.length ? 0 : -1;

  function select(n) {
    if (!candidates.length) return;
    selected = Math.max(0, Math.min(candidates.length - 1, n));
    candidates.forEach(function (li, i) { li.classList.toggle("selected", i === selected); });
    candidates[selected].focus({ preventScroll: true });
    candidates[selected].scrollIntoView({ block: "nearest" });
  }

  function scope() {
    if (selected >= 0 && candidates[selected]) return candidates[selected];
    return document.querySelector("article.note") || document;
  }

  function submit(form) {
    if (!form) return;
    var button = form.querySelector("button[type=submit]");
    if (button && button.disabled) return;
    if (form.requestSubmit) form.requestSubmit(); else form.submit();
  }

  if (candidates.length) select(0);

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (typing(event)) {
      if (event.key === "Escape") event.target.blur();
      return;
    }
    var here = scope();
    switch (event.key) {
      case "/":
        var box = document.getElementById("q") || document.getElementById("quick-search");
        if (box) { event.preventDefault(); box.focus(); box.select(); }
        break;
      case "j": select(selected + 1); break;
      case "k": select(selected - 1); break;
      case "a":
        submit(here.querySelector("form.op-accept"));
        break;
      case "r":
        var reason = here.querySelector("form.op-reject input[name=reason]");
        if (reason && !reason.disabled) { event.preventDefault(); reason.focus(); }
        break;
      case "e":
        var edit = here.querySelector("details.op-edit");
        if (edit) {
          event.preventDefault();
          edit.open = true;
          var title = edit.querySelector("input[name=title]");
          if (title && !title.disabled) title.focus();
        }
        break;
      case "o":
        var link = here.querySelector("h2 a");
        if (link) link.click();
        break;
    }
  });

  Array.prototype.forEach.call(document.querySelectorAll("a[data-back]"), function (a) {
    a.addEventListener("click", function (event) {
      if (history.length > 1) { event.preventDefault(); history.back(); }
    });
  });

  if (document.getElementById("doctor-pending")) {
    setTimeout(function () { location.reload(); }, 2000);
  }
})();
