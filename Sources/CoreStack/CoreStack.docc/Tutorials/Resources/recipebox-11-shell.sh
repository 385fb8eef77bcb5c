swift run recipebox /tmp/recipes.sqlite
cd ../CoreStack
swift run stackscope info /tmp/recipes.sqlite --schema
swift run stackscope /tmp/recipes.sqlite
swift run stackscope model /tmp/recipes.sqlite --format xcdatamodeld -o /tmp/RecipeBox.xcdatamodeld
swift run stackscope /tmp/recipes.sqlite --model /tmp/RecipeBox.xcdatamodeld
