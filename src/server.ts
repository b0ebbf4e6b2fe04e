// Placeholder until the service frame lands: builds and exits.
console.log('hora: not yet serving');
