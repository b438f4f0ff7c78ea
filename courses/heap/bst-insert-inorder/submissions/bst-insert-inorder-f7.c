#include <stdio.h>
#include <stdlib.h>

struct tree {
    int key;
    struct tree *left, *right;
};

struct tree *insert(struct tree *t, int key)
{
    if (t == NULL) {
        t = calloc(1, sizeof(struct tree));
        t->key = key;
    } else if (key > t->key) {
        t->left = insert(t->left, key);
    } else if (key > t->key) {
        t->right = insert(t->right, key);
    }
    return t;
}

void inorder(struct tree *t)
{
    if (t == NULL)
        return;
    inorder(t->left);
    printf(" %d", t->key);
    inorder(t->right);
}

int height(struct tree *t)
{
    int hl, hr;

    if (t == NULL)
        return 1;
    hl = height(t->left);
    hr = height(t->right);
    return 1 + (hl > hr ? hl : hr);
}

void destroy(struct tree *t)
{
    if (t != NULL) {
        destroy(t->left);
        destroy(t->right);
        free(t);
    }
}

int main(void)
{
    struct tree *root = NULL;
    int n, x;

    scanf("%d", &n);
    while (n-- > 0) {
        scanf("%d", &x);
        root = insert(root, x);
    }
    printf("inorder:");
    inorder(root);
    printf("\nheight: %d\n", height(root));
    destroy(root);
    return 0;
}
