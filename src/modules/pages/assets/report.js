// The shared report: the print button opens the browser's print dialog ("Save as PDF").
'use strict';
document.querySelector('[data-print]')?.addEventListener('click', () => window.print());
