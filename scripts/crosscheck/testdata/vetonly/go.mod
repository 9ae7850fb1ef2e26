module example.com/vetonly

go 1.26
