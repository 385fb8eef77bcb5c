// `import CoreStackModel` is all a file of macro-declared classes needs.
@_exported import CoreStack
