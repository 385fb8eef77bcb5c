swift run recipebox /tmp/recipes.sqlite
cd ../CoreStack
swift run stackscope info /tmp/recipes.sqlite --schema
swift run stackscope /tmp/recipes.sqlite
