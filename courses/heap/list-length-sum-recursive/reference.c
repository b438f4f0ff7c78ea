#include <stdio.h>
#include <stdlib.h>

struct cell {
    int value;
    struct cell *rest;
};

struct cell *read_list(int count)
{
    struct cell *c;
    int x;

    if (count == 0 || scanf("%d", &x) != 1)
        return NULL;
    c = malloc(sizeof(struct cell));
    c->value = x;
    c->rest = read_list(count - 1);
    return c;
}

int length(struct cell *l)
{
    if (l == NULL)
        return 0;
    return 1 + length(l->rest);
}

long sum(struct cell *l)
{
    if (l == NULL)
        return 0;
    return l->value + sum(l->rest);
}

int max_value(struct cell *l)
{
    int m;

    if (l->rest == NULL)
        return l->value;
    m = max_value(l->rest);
    return m > l->value ? m : l->value;
}

void free_list(struct cell *l)
{
    if (l == NULL)
        return;
    free_list(l->rest);
    free(l);
}

int main(void)
{
    int n;
    struct cell *list;

    if (scanf("%d", &n) != 1)
        return 0;
    list = read_list(n);
    printf("length %d\n", length(list));
    printf("sum %ld\n", sum(list));
    if (list == NULL)
        printf("max none\n");
    else
        printf("max %d\n", max_value(list));
    free_list(list);
    return 0;
}
