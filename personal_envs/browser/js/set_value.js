(el, value) => {
  el.focus();
  if (el.isContentEditable) {
    el.textContent = value;
  } else {
    const proto = el.tagName === 'TEXTAREA' ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
    const setter = Object.getOwnPropertyDescriptor(proto, 'value').set;
    setter.call(el, value);
  }
  el.dispatchEvent(new InputEvent('input', {bubbles: true, inputType: 'insertText'}));
  el.dispatchEvent(new Event('change', {bubbles: true}));
}
