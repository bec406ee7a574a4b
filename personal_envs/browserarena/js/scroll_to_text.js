(text) => {
  const needle = text.toLowerCase();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    if ((node.textContent || '').toLowerCase().includes(needle) && node.parentElement) {
      node.parentElement.scrollIntoView({block: 'center'});
      return true;
    }
  }
  return false;
}
