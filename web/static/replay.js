// The replay's arrow keys: Left and Right follow the page's Previous and Next links, Home and
// End its First and Last links. The links work without this script.
document.addEventListener("keydown", function (event) {
  if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
  var target = event.target;
  if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return;
  var id = {ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last"}[event.key];
  var link = id && document.getElementById(id);
  if (link && link.href !== window.location.href) {
    event.preventDefault();
    window.location.assign(link.href);
  }
});
