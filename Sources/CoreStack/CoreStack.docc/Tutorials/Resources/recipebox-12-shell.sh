swift run stackscope dump /tmp/recipes.sqlite --entity Recipe --sort minutes
swift run stackscope dump /tmp/recipes.sqlite --entity Ingredient --predicate 'recipe.name == "Pancakes"' --json
