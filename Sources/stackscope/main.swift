print("stackscope")
