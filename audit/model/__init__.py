"""The ground floor: what flows between the stages (the results, a checker's evidence, claimed values, the fixtures'
shapes, a universal claim's cases, the input limits and how an input file is read). Every stage imports it; it
imports nothing above the ground floor."""
